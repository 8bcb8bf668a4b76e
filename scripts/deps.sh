#!/usr/bin/env bash
# Installs what fz7 needs to build and test on Debian 12 (run as root).
# Skips apt-get when every package is already there, so CI reruns are fast.
set -euo pipefail
pkgs=(build-essential cmake nasm pkg-config libarchive-dev libbz2-dev libcmocka-dev
      7zip xz-utils libarchive-tools python3 bc libzstd-dev liblz4-dev libbrotli-dev
      libssl-dev libxxhash-dev nettle-dev lzip strace gnuplot-nox
      bzip2 zstd zip  # oracles of the format tests (formats.sh, list_formats.sh, fuzz seeds)
      binutils  # ar: the archives of ar_deb.sh (dpkg-deb comes with dpkg)
      rpm gcab  # rpmbuild and gcab: the .rpm and .cab samples of rpm_cab.sh
      jlha-utils  # jlha (Java): the -lh5-/-lh6-/-lh7- samples of lzh.sh
      squashfs-tools  # mksquashfs: the SquashFS images of squashfs.sh
      liblzo2-dev  # LZO1X for SquashFS lzo images (optional in CMake; squashfs.sh reads them when present)
      msitools  # msibuild: the .msi packages of compound.sh (with gcab for the .cab in one)
      dosfstools mtools  # mkfs.fat and mcopy/mmd/mdel: the FAT images of fat.sh (no mount)
      gdisk fdisk  # sgdisk: the GPT disks of gpt.sh and vmdisk.sh; sfdisk: vmdisk.sh's MBR disks
      xorriso  # the hybrid ISO with an appended GPT of gpt.sh
      udftools genisoimage  # mkudffs and genisoimage -udf: the empty and hybrid UDF images of udf.sh
      qemu-utils  # qemu-img: the VHD images of vmdisk.sh
      liblzma-dev)  # liblzma: the fuzz harnesses' independent decoder (test binaries only)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
