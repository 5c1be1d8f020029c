#!/usr/bin/env bash
# Builds Weir and this module, then runs the side-by-side benchmark (Weir against Flink, plus the
# plain-Java limit) with the arguments given, for example:
#   weir-benchmarks/run.sh --workloads W1 --runs 3 --records 20000000 --configs off,cp1s --xmx 4g
# Prints a Markdown table on standard output and progress on standard error. Run it on an
# otherwise idle machine: every run starts a fresh JVM, and the figures are only as quiet as
# the machine is.
set -euo pipefail

module_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_dir="$(dirname "$module_dir")"

if [[ "${SKIP_BUILD:-}" != "1" ]]; then
  # spotless.skip: a benchmark run builds the sources as they are and never reformats them.
  (cd "$repo_dir" && mvn -q -pl weir-benchmarks -am package -DskipTests -Dspotless.skip=true)
fi

# One class path per engine (Weir's and Flink's RocksDB backends ship the same org.rocksdb
# package); the runner itself runs on Weir's and picks the right one for each child.
for engine in weir flink; do
  if [[ ! -f "$module_dir/target/classpath-$engine.txt" ]]; then
    echo "Missing $module_dir/target/classpath-$engine.txt: build with 'mvn -pl weir-benchmarks -am package' first." >&2
    exit 1
  fi
done

exec java -Xmx256m -cp "$module_dir/target/classes:$(cat "$module_dir/target/classpath-weir.txt")" \
  -Dweir.bench.command="weir-benchmarks/run.sh" \
  io.weir.benchmarks.SideBySide "$@"
