//! Where an array's elements live: in host columns, in device buffers, or both.
//!
//! An array made on the host has its columns and gets a device copy the first time a GPU
//! program reads it (kept, so that passing it again costs no copy). An array a GPU program
//! returns lives on the device only until the host first reads it; then it is downloaded once.
//! Arrays are immutable, so the two copies never disagree.

use crate::elem::Elem;
use std::sync::OnceLock;

#[cfg(feature = "cuda")]
use crate::cuda::DArray;

pub(crate) struct Storage<E: Elem> {
    /// The columns of an array made on the host, read with no synchronisation: a `OnceLock`'s
    /// read is an atomic load, which the compiler keeps inside a closure's loop (the CPU
    /// backend's reads of an input cost a load of its state per element, and no loop over them
    /// was vectorised).
    made: Option<E::Columns>,
    /// The columns of an array made on the device, downloaded on first use.
    host: OnceLock<E::Columns>,
    #[cfg(feature = "cuda")]
    device: OnceLock<DArray>,
}

impl<E: Elem> Clone for Storage<E> {
    fn clone(&self) -> Self {
        Storage {
            made: self.made.clone(),
            host: self.host.clone(),
            #[cfg(feature = "cuda")]
            device: self.device.clone(),
        }
    }
}

impl<E: Elem> Storage<E> {
    pub(crate) fn host(columns: E::Columns) -> Self {
        Storage {
            made: Some(columns),
            host: OnceLock::new(),
            #[cfg(feature = "cuda")]
            device: OnceLock::new(),
        }
    }

    /// The host columns, downloaded once if the array lives on the device only.
    ///
    /// Panics if that download fails (the device failed after the program that made the array
    /// returned); [`crate::Array::download`] reports it as an error instead.
    #[inline]
    pub(crate) fn columns(&self) -> &E::Columns {
        if let Some(columns) = &self.made {
            return columns;
        }
        self.host.get_or_init(|| {
            #[cfg(feature = "cuda")]
            if let Some(d) = self.device.get() {
                return d
                    .download_columns::<E>()
                    .unwrap_or_else(|e| panic!("accel: reading an array back from the GPU failed: {e}"));
            }
            unreachable!("an array is always stored somewhere")
        })
    }

    pub(crate) fn into_columns(self) -> E::Columns {
        if let Some(columns) = self.made {
            return columns;
        }
        self.columns();
        self.host.into_inner().expect("just made present")
    }
}

#[cfg(feature = "cuda")]
impl<E: Elem> Storage<E> {
    pub(crate) fn device(array: DArray) -> Self {
        Storage { made: None, host: OnceLock::new(), device: OnceLock::from(array) }
    }

    pub(crate) fn device_copy(&self) -> Option<&DArray> {
        self.device.get()
    }

    /// Keeps `array` as the device copy (if none is kept yet).
    pub(crate) fn keep_device_copy(&self, array: DArray) {
        let _ = self.device.set(array);
    }

    /// Downloads the columns now if they are not on the host, reporting a failure.
    pub(crate) fn download(&self) -> accel_core::Result<()> {
        if self.made.is_none()
            && self.host.get().is_none()
            && let Some(d) = self.device.get()
        {
            let _ = self.host.set(d.download_columns::<E>()?);
        }
        Ok(())
    }
}
