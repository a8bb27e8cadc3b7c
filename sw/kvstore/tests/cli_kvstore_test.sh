#!/usr/bin/env bash
# End-to-end checks of `ndp kvstore`: create, inspect, check (good, then a corrupt superblock and a
# leaked block), errors as one line on stderr with exit 1.
set -u
NDP="$1"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ndpkv-cli.XXXXXX")
trap 'rm -rf "$dir"' EXIT
pool="$dir/kv.pool"
fails=0
check() { # description, condition
  if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}

out=$("$NDP" kvstore create --pool "$pool" --layers 5 --kv-heads 4 --head-dim 8 --blocks 100 2>&1)
check "create prints the geometry" '[[ "$out" == *"100 blocks of 16 tok x 5 layers x 4 heads x 8 ch x 2 B = 10240 B"* ]]'
"$NDP" kvstore create --pool "$pool" --blocks 10 >/dev/null 2>"$dir/err"; rc=$?
check "create refuses an existing pool" '[[ $rc == 1 && $(wc -l <"$dir/err") == 1 && "$(cat "$dir/err")" == *"exists"* ]]'
js=$("$NDP" kvstore inspect --pool "$pool" --json | tail -1)
check "inspect --json" '[[ "$js" == *"\"blocks\":100"* && "$js" == *"\"free\":100"* && "$js" == *"\"block_bytes\":10240"* ]]'
"$NDP" kvstore check --pool "$pool" --deep >"$dir/out" 2>&1; rc=$?
check "check of a fresh pool" '[[ $rc == 0 && "$(tail -1 "$dir/out")" == *"\"consistent\":true"* ]]'

# A block left WRITING by a dead pid (pid 0x7ffffffe never exists) in the first state word.
printf '\xfe\xff\xff\x7f\x01\x00\x00\x00' | dd of="$pool" bs=1 seek=4096 conv=notrunc status=none
"$NDP" kvstore check --pool "$pool" >"$dir/out" 2>"$dir/err"; rc=$?
check "check finds the leaked block" '[[ $rc == 1 && "$(tail -1 "$dir/out")" == *"\"writing_dead\":1"* && $(wc -l <"$dir/err") == 1 ]]'
"$NDP" kvstore check --pool "$pool" --repair --json >"$dir/out" 2>&1; rc=$?
check "check --repair frees it" '[[ $rc == 0 && "$(tail -1 "$dir/out")" == *"\"freed_writing\":1"* ]]'

printf 'X' | dd of="$pool" bs=1 seek=0 conv=notrunc status=none
"$NDP" kvstore inspect --pool "$pool" >/dev/null 2>"$dir/err"; rc=$?
check "a corrupt superblock is one error line" '[[ $rc == 1 && $(wc -l <"$dir/err") == 1 && "$(cat "$dir/err")" == *"corrupt pool header: magic at offset 0"* ]]'
"$NDP" kvstore inspect --pool "$dir/none" >/dev/null 2>"$dir/err"; rc=$?
check "a missing pool is one error line" '[[ $rc == 1 && "$(cat "$dir/err")" == "ndp kvstore inspect: $dir/none: open: No such file or directory" ]]'
"$NDP" kvstore create --pool "$dir/x" --elem 3 --blocks 1 >/dev/null 2>"$dir/err"; rc=$?
check "bad geometry is one error line" '[[ $rc == 1 && "$(cat "$dir/err")" == *"elem_bytes must be 1, 2 or 4"* ]]'
"$NDP" kvstore create --pool "$dir/full" --layers 1 --kv-heads 1 --head-dim 8 --size 4096 >/dev/null 2>"$dir/err"; rc=$?
check "a pool too small for one block" '[[ $rc == 1 && "$(cat "$dir/err")" == *"cannot hold one block"* ]]'
exit $fails
