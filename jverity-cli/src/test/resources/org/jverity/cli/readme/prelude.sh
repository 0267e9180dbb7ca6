# Sourced by each README block's script (ReadmeScript): the values of the README's placeholders,
# computed by the peers from the files as they are when the line runs, and the checks.
set -u -o pipefail
failures=0
servers=

# The root hash of HASH's tree over DATA, as veritysetup computes it with HASH's parameters.
root_hash() {
  local dump
  dump=$(veritysetup dump "$2") || return 1
  veritysetup format "$1" "$TMPDIR/root-hash.$$" --no-superblock \
    --hash="$(field 'Hash algorithm' "$dump")" --salt="$(field Salt "$dump")" \
    --data-block-size="$(field 'Data block size' "$dump")" \
    --hash-block-size="$(field 'Hash block size' "$dump")" \
    --data-blocks="$(field 'Data blocks' "$dump")" --format="$(field 'Hash type' "$dump")" \
    | sed -n 's/^Root hash:[[:space:]]*//p'
  rm -f "$TMPDIR/root-hash.$$"
}
salt_of() { field Salt "$(veritysetup dump "$1")"; }
field() { printf '%s\n' "$2" | sed -n "s/^$1:[[:space:]]*//p"; }

fail() {
  echo "$where: $*" >&2
  failures=$((failures + 1))
}
# A line's exit status and what it wrote, when it failed.
expect_ok() {
  [ "$1" = 0 ] || fail "exit $1; stdout: $(head -c 2000 "$out"); stderr: $(head -c 2000 "$err")"
}
# The output the README states in the line's comment.
expect_line() {
  grep -qxF -- "$1" "$out" || fail "expected the line '$1' on stdout; got: $(head -c 2000 "$out"); stderr: $(head -c 2000 "$err")"
}
expect_silent() {
  [ ! -s "$out" ] && [ ! -s "$err" ] || fail "expected no output; stdout: $(head -c 2000 "$out"); stderr: $(head -c 2000 "$err")"
}
# A server started in the background: wait (60 s at most) until it prints its first line, or
# READY appears on its stderr, and fail if it exits first.
started() {
  local pid=$1 ready=${2-} i
  servers="$servers $pid"
  for i in $(seq 600); do
    if [ -z "$ready" ] && [ -s "$out" ] && [ -z "$(tail -c 1 "$out")" ]; then return 0; fi
    if [ -n "$ready" ] && grep -q -- "$ready" "$err"; then return 0; fi
    kill -0 "$pid" 2> /dev/null || { wait "$pid"; fail "exited $? before serving; stderr: $(head -c 2000 "$err")"; return 1; }
    sleep 0.1
  done
  fail "not serving after 60 s; stderr: $(head -c 2000 "$err")"
}
# Stops every server the block started (SIGTERM, as systemctl stop): each must exit 0.
stop_servers() {
  local pid rc
  for pid in $servers; do kill -TERM "$pid" 2> /dev/null; done
  for pid in $servers; do
    wait "$pid"; rc=$?
    [ "$rc" = 0 ] || where="server $pid" fail "exit $rc on SIGTERM"
  done
  servers=
}
# The bytes written to OUT, as sha256sum prints them, are FILE's.
same_bytes() {
  [ "$(cat "$1")" = "$(sha256sum < "$2")" ] || fail "not the bytes of $2: $(cat "$1")"
}
# stdout is the transcript on stdin, line for line; a line "..." stands for any lines.
expect_transcript() {
  local expected=$TMPDIR/transcript.$$
  cat > "$expected"
  awk -v expected="$expected" '
    BEGIN { while ((getline l < expected) > 0) e[++n] = l }
    { o[++m] = $0 }
    END {
      j = 1; skip = 0
      for (i = 1; i <= n; i++) {
        if (e[i] ~ /^[[:space:]]*\.\.\.[[:space:]]*$/) { skip = 1; continue }
        while (skip && j <= m && o[j] != e[i]) j++
        if (j > m || o[j] != e[i]) { print "expected the line \"" e[i] "\""; exit 1 }
        j++; skip = 0
      }
      if (!skip && j <= m) { print "did not expect the line \"" o[j] "\""; exit 1 }
    }' "$out" > "$expected.diff" \
    || fail "$(cat "$expected.diff"); stdout was: $(cat "$out")"
  rm -f "$expected" "$expected.diff"
}
# FILE appears (a FUSE mount), within 30 s.
mounted() {
  local i
  for i in $(seq 300); do [ -e "$1" ] && return 0; sleep 0.1; done
  fail "$1 did not appear"
  return 1
}
same_bytes_file() { cmp "$1" "$2" > /dev/null || fail "$1 is not $2"; }
