# The files the README's examples name, made once in the shared scratch directory (the working
# directory) by ReadmeExamplesTest before the first example runs. Small: 4 MiB images.
set -eu
mkdir -p content tmp home run cache sock mounted www/images/v7 out pki/jverity pki/libnbd
chmod 0700 run
head -c 65536 /dev/urandom > content/sample
# data.img is a file system, so that the README's nbdfuse example can mount it.
mkfs.ext4 -q -F -d content data.img 4M
veritysetup format data.img data.hash > /dev/null
cp data.img d.img && veritysetup format d.img d.hash > /dev/null
head -c 4096000 /dev/urandom > disk.img
head -c 1048576 /dev/urandom > app.bin
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
  -subj /CN=jverity-readme 2> /dev/null
# serve.conf's two exports: root.img with its own hash file, home.img with its tree at 1 GiB.
head -c 4194304 /dev/urandom > root.img && veritysetup format root.img root.hash > /dev/null
head -c 4194304 /dev/urandom > home.img
out=$(veritysetup format home.img home.img --data-blocks 1024 --hash-offset 1073741824)
salt=$(printf '%s\n' "$out" | sed -n 's/^Salt:[[:space:]]*//p')
root=$(printf '%s\n' "$out" | sed -n 's/^Root hash:[[:space:]]*//p')
echo "verity1:sha256:4096:4096:1024:1:$salt:$root" > home.identity
# The TLS example's directories: nbdkit's layout for the server, libnbd's for the client.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
  -keyout pki/jverity/server-key.pem -out pki/jverity/server-cert.pem -days 2 \
  -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost 2> /dev/null
cp pki/jverity/server-cert.pem pki/libnbd/ca-cert.pem
# AVB: system.img and boot.img; the keys are AOSP's test keys (copied in by the test).
head -c 4194304 /dev/urandom > system.img
head -c 1048576 /dev/urandom > boot.img
openssl rsa -in system_key.pem -pubout -out system_key.pub.pem 2> /dev/null
# The signing helper the README's --signing_helper example runs: avbtool's protocol, the block
# on stdin raised to the private exponent.
printf '%s\n' '#!/bin/sh' 'exec openssl rsautl -sign -raw -inkey system_key.pem' > hsm-sign
chmod +x hsm-sign
# DDI: a small ext4 file system to make one of, and the signer's certificate in a verity.d-like directory.
mkfs.ext4 -q rootfs.ext4 8M
mkdir -p keys && cp cert.pem keys/signer.crt
