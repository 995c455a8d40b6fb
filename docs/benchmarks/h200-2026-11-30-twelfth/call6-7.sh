#!/usr/bin/env bash
# Twelfth session, calls 6 and 7 (the command given to the device tool, from the repository
# root): the corpus's trials of the skeletons the committed build touches, a group at a time
# (libtest takes one filter), each under 110 s. Call 6 forgot to unpack the binaries (rc 127
# for every group); call 7 ran out of the session's device time during `movement`, after 29 of
# its 31 trials, and `expand_permute` hit its 110 s after 2 of 4 (none failed).
cd gpu-pack && bash run.sh driver > /dev/null 2>&1
for g in errors examples irregular nested expand_permute reduce movement; do
  timeout 110 ./bin/corpus cuda::$g > "$OUT/t-$g.log" 2>&1
  echo "$g rc=$? $(grep -E 'test result' "$OUT/t-$g.log")"; grep -E "FAILED|panicked" "$OUT/t-$g.log" | head -3
done
