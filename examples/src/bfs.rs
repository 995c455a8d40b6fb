//! Breadth-first search over a graph of adjacency lists (the thesis on expand/permute, §5.2):
//! each level expands the frontier into its neighbours (`expand`), marks those not yet reached
//! with the next level (`permute`, fused with the expand into one kernel), and keeps the newly
//! marked nodes as the next frontier (`filter`), inside `awhile`.

use accel::prelude::*;

/// The level of every node of `graph` (row `v` lists the neighbours of node `v`) in a
/// breadth-first search from `source`: 0 for the source, -1 for the nodes it does not reach. A
/// neighbour that is not a node is an `IndexOutOfBounds` error.
#[accel]
pub fn bfs_levels(graph: Nested<u32>, source: u32) -> Vector<i32> {
    let n = graph.len();
    let offsets = graph.offsets();
    let neighbours = graph.values();
    let start = generate(n, |v| if v == source as usize { 0i32 } else { -1 });
    let frontier = iota::<u32>(n).filter(|v| v == source);
    let searched = awhile(
        (start, frontier, unit(0i32)),
        |s| unit(s.1.len() > 0),
        |s| {
            let depth = s.2.get() + 1;
            let reached = s
                .1
                .expand(|v| offsets[v as usize + 1] - offsets[v as usize], |v, j| neighbours[offsets[v as usize] + j]);
            let levels = reached.map(|_| depth).permute(
                s.0,
                |i| if s.0[reached[i] as usize] < 0 { Some(reached[i] as usize) } else { None },
                |a, b| a.max(b),
            );
            let next = iota::<u32>(n).filter(|v| levels[v as usize] == depth);
            (levels, next, unit(depth))
        },
    );
    searched.0
}

/// The levels [`bfs_levels`] computes, by a sequential breadth-first search over the adjacency
/// lists: the oracle the example and its tests check against.
pub fn sequential_levels(adjacency: &[Vec<u32>], source: u32) -> Vec<i32> {
    let mut levels = vec![-1; adjacency.len()];
    let mut queue = std::collections::VecDeque::new();
    if (source as usize) < adjacency.len() {
        levels[source as usize] = 0;
        queue.push_back(source as usize);
    }
    while let Some(v) = queue.pop_front() {
        for &w in &adjacency[v] {
            if levels[w as usize] < 0 {
                levels[w as usize] = levels[v] + 1;
                queue.push_back(w as usize);
            }
        }
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check;
    use crate::rng::SplitMix64;

    /// A random graph of `n` nodes with up to `degree` edges each, some nodes unreachable.
    fn graph(rng: &mut SplitMix64, n: u32, degree: u32) -> Vec<Vec<u32>> {
        (0..n).map(|_| (0..rng.below(degree + 1)).map(|_| rng.below(n.max(1))).collect()).collect()
    }

    #[test]
    fn backend_interpreter_and_oracle_agree() -> Result<(), Box<dyn std::error::Error>> {
        let rt = Runtime::cpu();
        let mut rng = SplitMix64::new(3);
        for (n, degree) in [(0, 0), (1, 0), (1, 2), (17, 1), (300, 3), (5000, 2)] {
            let adjacency = graph(&mut rng, n, degree);
            let g = Nested::from_rows(adjacency.clone());
            for source in [0, n / 2, n] {
                let got = bfs_levels(&rt, &g, source)?.to_vec();
                let what = format!("{n} nodes from {source}");
                check::exact(&format!("{what} vs oracle"), &got, &sequential_levels(&adjacency, source))?;
                if n <= 300 {
                    check::exact(
                        &format!("{what} vs interpreter"),
                        &got,
                        &bfs_levels::reference(&g, source)?.to_vec(),
                    )?;
                }
            }
        }
        // A chain: one node per level.
        let chain: Vec<Vec<u32>> = (0..100).map(|v| if v < 99 { vec![v + 1] } else { vec![] }).collect();
        let levels = bfs_levels(&rt, &Nested::from_rows(chain), 0)?.to_vec();
        check::exact("a chain", &levels, &(0..100).collect::<Vec<i32>>())?;
        Ok(())
    }

    #[test]
    fn a_neighbour_that_is_not_a_node_is_an_index_error() {
        let rt = Runtime::cpu();
        let g = Nested::from_rows(vec![vec![1u32], vec![7]]);
        let e = bfs_levels(&rt, &g, 0).unwrap_err();
        assert!(matches!(e, accel::Error::IndexOutOfBounds { .. }), "{e:?}");
        assert!(matches!(bfs_levels::reference(&g, 0), Err(accel::Error::IndexOutOfBounds { .. })));
    }

    #[test]
    fn a_level_is_one_fused_expand_and_permute() {
        let plan = bfs_levels::plan().to_string();
        assert!(plan.contains("expand_permute"), "{plan}");
    }
}
