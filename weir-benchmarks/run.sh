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

classpath_file="$module_dir/target/classpath.txt"
if [[ ! -f "$classpath_file" ]]; then
  echo "Missing $classpath_file: build with 'mvn -pl weir-benchmarks -am package' first." >&2
  exit 1
fi

exec java -Xmx256m -cp "$module_dir/target/classes:$(cat "$classpath_file")" \
  -Dweir.bench.command="weir-benchmarks/run.sh" \
  io.weir.benchmarks.SideBySide "$@"
