#!/usr/bin/env bash
# Builds the C# client with mono's compiler at C# 7.2, the newest level mcs
# knows and one every Unity since 2018.3 accepts:
#
#   clients/csharp/build.sh OUT          OUT/Cupid.dll
#   clients/csharp/build.sh OUT tests    also OUT/CupidTests.exe (tests and examples)
#
# Needs Debian's mono-mcs and libmono-system-net-http4.0-cil.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build.sh OUTDIR [tests]}"
mkdir -p "$out"
flags=(-langversion:7.2 -nologo -warnaserror -r:System.Net.Http.dll)
mcs "${flags[@]}" -target:library -doc:"$out/Cupid.xml" -nowarn:1591 -out:"$out/Cupid.dll" "$here"/src/*.cs
if [ "${2:-}" = tests ]; then
  mcs "${flags[@]}" -out:"$out/CupidTests.exe" -r:"$out/Cupid.dll" "$here"/tests/*.cs "$here"/examples/*.cs
fi
