#!/bin/bash
# The device check on a lent GPU machine (docs/bench.md): `bash .device/device-check.sh [--small]`
# beside cpp-device.tar.xz (`npm run device:bundle` puts both in .device/). Needs no registry and
# no Node: it unpacks the bundle into a temporary folder, takes Vulkan's loader from the bundle
# where the machine has none (unpacked beside the bundle, never into /), points the loader at
# NVIDIA's Vulkan driver where it would not look, and runs the check (bench/device/check.ts), which
# writes check.json, check.md, check.log and bench-gpu.json into $OUT (or ./device-check-out).
# DEVICE_CHECK_CARRIED_VULKAN=1 takes the bundle's loader even where the machine has one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/device-check-out}
mkdir -p "$out"
root=$(mktemp -d /tmp/cpp-device.XXXXXX)
echo "device-check: unpacking $here/cpp-device.tar.xz into $root"
tar -C "$root" -xJf "$here/cpp-device.tar.xz" || { echo "device-check: the bundle does not unpack"; exit 1; }
app=$root/cpp-device
cat "$app/BUILD.json"

if [ "${DEVICE_CHECK_CARRIED_VULKAN:-0}" = 1 ] || ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1'; then
  for f in "$app"/debs/*.deb; do dpkg -x "$f" "$app/vulkan" || echo "device-check: could not unpack $f"; done
  export LD_LIBRARY_PATH="$app/vulkan/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "device-check: Vulkan's loader from the bundle ($(ls "$app"/debs | tr '\n' ' '))"
else
  echo "device-check: Vulkan's loader from the machine ($(ldconfig -p | grep -m1 'libvulkan.so.1'))"
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && [ -f "$icd" ] && ! ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1; then
  export VK_DRIVER_FILES=$icd
  echo "device-check: VK_DRIVER_FILES=$icd (NVIDIA's Vulkan driver, where the loader does not look)"
fi
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "$XDG_RUNTIME_DIR" ]; then export XDG_RUNTIME_DIR=$(mktemp -d); fi
if command -v nvidia-smi >/dev/null; then nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; else echo "device-check: no nvidia-smi here"; fi
if command -v python3 >/dev/null; then
  python3 -c 'import torch; print("device-check: PyTorch", torch.__version__, "CUDA", torch.cuda.is_available())' 2>&1 | tail -1
else
  echo "device-check: no python3 here: the bench runs without PyTorch"
fi

cd "$app" && ./node app/check.js --out "$out" "$@"
status=$?
rm -rf "$root"
exit $status
