#!/usr/bin/env bash
# Regenerates the tables of BENCHMARKS.md (between <!-- results:begin --> and
# <!-- results:end -->) from benchmarks/results.jsonl, the file the side-by-side runner appends to.
# Run from anywhere; extra arguments go to io.weir.benchmarks.ResultsTable, e.g. --check, which
# writes nothing and exits 1 when BENCHMARKS.md is not what the results give.
set -euo pipefail

module_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(dirname "$module_dir")"

if [[ "${SKIP_BUILD:-}" != "1" || ! -f "$module_dir/target/classpath-weir.txt" ]]; then
  # spotless.skip: regenerating a table never reformats the sources.
  (cd "$repo_dir" && mvn -q -pl weir-benchmarks -am package -DskipTests -Dspotless.skip=true)
fi

cd "$repo_dir"
exec java -cp "$module_dir/target/classes:$(cat "$module_dir/target/classpath-weir.txt")" \
  io.weir.benchmarks.ResultsTable "$@"
