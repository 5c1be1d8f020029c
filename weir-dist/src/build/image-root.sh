#!/usr/bin/env bash
# Lays out what the self-contained image adds to scratch, as a directory that Jib copies into the
# image (an extra directory):
#
#   /opt/java                      a JRE made by jlink from the JDK that runs Maven
#   /lib*/.../*.so*                the C libraries (glibc, libstdc++, libgcc_s, zlib) that this JRE
#                                  and the application's JNI libraries (RocksDB, Netty's epoll)
#                                  link against, copied from the build machine as ldd finds them
#   /usr/share/doc/PKG/copyright   the licences of the packages those libraries come from (dpkg)
#   /etc/passwd, /etc/group        the image's user, weir (1000:1000); from src/main/image
#   /tmp                           the temporary directory (RocksDB and Netty unpack their JNI
#                                  libraries there)
#
# Usage: image-root.sh JAVA_HOME MODULES CLASSPATH_FILE STATIC_DIR ROOT
# Skips the work when ROOT was made from the same inputs. Runs on Linux with glibc only: the C
# libraries come from this machine.
set -euo pipefail

java_home="$1"
modules="$2"
classpath_file="$3"
static_dir="$4"
root="$5"

fail() {
  echo "image-root.sh: $*" >&2
  echo "image-root.sh: to build on a base image with a JRE instead, set -Djib.from.image=eclipse-temurin:17-jre (docs/deployment.md)" >&2
  exit 1
}

[ "$(uname -s)" = Linux ] || fail "the self-contained image takes its C libraries from the build machine, which must run Linux (this is $(uname -s))"
command -v ldd >/dev/null || fail "ldd is missing: the C libraries of the JRE are found with it (Debian: apt-get install libc-bin)"
case "$(ldd --version 2>&1 || true)" in
  *GLIBC* | *"GNU libc"*) ;;
  *) fail "ldd is not glibc's: the image's C libraries come from a glibc system" ;;
esac
command -v unzip >/dev/null || fail "unzip is missing: the JNI libraries are read out of the application's jars with it (Debian: apt-get install unzip)"
[ -x "$java_home/bin/jlink" ] || fail "no jlink in $java_home: Maven must run on a JDK 17, not a JRE"
[ -d "$java_home/jmods" ] || fail "no jmods in $java_home: jlink needs the JDK's module files (Debian: openjdk-17-jdk-headless; other JDKs ship them)"
[ -f "$classpath_file" ] || fail "no class path file $classpath_file (written by maven-dependency-plugin before this step)"

script_sum="$(md5sum < "$0")"
inputs="$java_home|$modules|$(md5sum < "$java_home/release")|$(md5sum < "$classpath_file")|$script_sum|$(cd "$static_dir" && find . -type f -exec md5sum {} + | sort)"
stamp="$root.inputs"
if [ -f "$stamp" ] && [ -f "$root/opt/java/release" ] && [ "$(cat "$stamp")" = "$inputs" ]; then
  echo "image-root.sh: $root is up to date"
  exit 0
fi
rm -rf "$root" "$stamp"
mkdir -p "$root"

# The JRE. No --compress: Jib gzips the layer anyway, and compressed modules start slower.
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
  --output "$root/opt/java"

# Every ELF file whose libraries the image must carry: the JRE's, and the application's JNI
# libraries of this machine's architecture unpacked from its jars (not those built for musl, which
# the loaders of RocksDB and Netty do not pick on a glibc system).
case "$(uname -m)" in
  x86_64) arch='x86_64|x86-64|amd64|linux64|x64' ;;
  aarch64) arch='aarch64|aarch_64|arm64' ;;
  *) arch="$(uname -m)" ;;
esac
jni="$(mktemp -d)"
trap 'rm -rf "$jni"' EXIT
tr ':' '\n' < "$classpath_file" | while read -r jar; do
  case "$jar" in *.jar) ;; *) continue ;; esac
  unzip -Z1 "$jar" 2>/dev/null | grep -E '\.so$' | grep -E "$arch" | grep -v musl | while read -r entry; do
    mkdir -p "$jni/$(basename "$jar")"
    unzip -q -o -j "$jar" "$entry" -d "$jni/$(basename "$jar")"
  done || true
done

libs="$(mktemp)"
scanned=0
while read -r elf; do
  if ! out="$(ldd "$elf" 2>/dev/null)"; then
    continue # not a dynamic executable of this machine
  fi
  scanned=$((scanned + 1))
  # "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)"
  echo "$out" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' >> "$libs"
  # The JRE's own libraries (libjvm.so, libjava.so) are found through its RPATH at run time.
  missing="$(echo "$out" | awk '$3 == "not" { print $1 }' | grep -vE '^lib(jvm|java|jli|net|nio|zip|verify|jimage|management)\.so$' || true)"
  [ -z "$missing" ] || fail "$elf needs $missing, which this machine does not have"
done < <(find "$root/opt/java" "$jni" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper -o -name jexec \))

count=0
for lib in $(sort -u "$libs"); do
  case "$lib" in "$root"/* | "$jni"/*) continue ;; esac
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib" # the file, not a link: Jib copies links' targets as files anyway
  count=$((count + 1))
  # dpkg knows a file by the path its package installs it at: /lib/... or, merged, /usr/lib/...
  package=""
  if command -v dpkg >/dev/null; then
    for path in "$lib" "$(readlink -f "$lib")" "/usr$lib"; do
      package="$( (dpkg -S "$path" 2>/dev/null || true) | head -1 | cut -d: -f1)"
      [ -z "$package" ] || break
    done
  fi
  if [ -n "$package" ] && [ -f "/usr/share/doc/$package/copyright" ]; then
    mkdir -p "$root/usr/share/doc/$package"
    cp "/usr/share/doc/$package/copyright" "$root/usr/share/doc/$package/copyright"
  fi
done
rm -f "$libs"
[ "$count" -gt 0 ] || fail "ldd found no C library behind the JRE: is $java_home a dynamically linked JDK?"

cp -R "$static_dir/." "$root/"
mkdir -p "$root/tmp" "$root/opt/weir"

echo "$inputs" > "$stamp"
echo "image-root.sh: $root: JRE with $modules; $count C libraries for $scanned ELF files"
