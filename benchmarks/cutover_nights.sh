#!/usr/bin/env bash
# Nights over one share into Qdrant local + Milvus Lite (issue 30, "stores follow the
# layers"): plain, --sparse on, --sparse off, another dense key (--embedding-precision
# bf16: the one model offline, so precision stands in for a model change), then an
# edit. Each night prints exit code, wall and CPU (user+sys of the process and its
# children) and each sink's state (mode, upserts, deletes, cutover window). BEFORE=1:
# code from before aliases (plain, then --sparse and bf16 each over it). TIMEOUT: s/night.
# Usage: benchmarks/cutover_nights.sh PKG_DIR WORK_DIR [SHARE_SUBFOLDERS...]
#   PKG_DIR: a folder holding ``ragbeam`` (PYTHONPATH), e.g. /work/wt/stores-pkg
set -u
PKG=$1 WORK=$2; shift 2
PY=${PY:-python}
SUBS=${*:-md txt eml csv}
rm -rf "$WORK" && mkdir -p "$WORK/share"
for s in $SUBS; do cp -r "$(dirname "$0")/../../shared/corpus/$s" "$WORK/share/"; done
SINKS=(--sink "qdrant:$WORK/qdrant?collection=docs" --sink "milvus:$WORK/milvus.db?collection=docs")
night() {  # name previous options...
  local name=$1 prev=$2; shift 2
  local p=(); [ "$prev" != - ] && p=(--previous "$WORK/$prev")
  /usr/bin/time -f "%e %U %S" -o "$WORK/$name.time" env PYTHONPATH="$PKG" HF_HUB_OFFLINE=1 \
    timeout "${TIMEOUT:-600}" "$PY" -m ragbeam.pipeline.cli run --input "$WORK/share" --output "$WORK/$name" \
    "${SINKS[@]}" "${p[@]}" "$@" > "$WORK/$name.log" 2>&1
  local rc=$?
  read -r wall user sys < <(tail -1 "$WORK/$name.time")
  printf '%-10s rc=%-3s wall=%6.1fs cpu=%6.1fs  ' "$name" "$rc" "$wall" "$(echo "$user + $sys" | bc)"
  "$PY" - "$WORK/$name" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
if not (out / "run.json").exists():
    print("no run.json"); sys.exit()
run = json.loads((out / "run.json").read_text())
parts = [f"docs processed={run.get('documents_processed')} encoded="
         f"{(run.get('embedding') or {}).get('texts_encoded', 0)} chunks={run.get('chunks')}"]
for s in run.get("sinks", []):
    c = s.get("cutover")
    parts.append(f"{s['kind']}: {s['status']} {s['mode']} +{s.get('upserts')} -{s.get('deletes')}"
                 + (f" cutover {c['from']}→{c['to']} window {c.get('window_s')} s" if c else ""))
print("; ".join(parts))
PY
  [ $rc -eq 2 ] && grep -m1 "error" "$WORK/$name.log" | cut -c1-220
}
night plain - --embedding-precision fp32
night sparse-on plain --embedding-precision fp32 --sparse
if [ -n "${BEFORE:-}" ]; then  # code without aliases: each change over the first night
  night bf16 plain --embedding-precision bf16
  uptime; exit
fi
night sparse-off sparse-on --embedding-precision fp32
night bf16 sparse-off --embedding-precision bf16
f=$(ls "$WORK"/share/*/*.md | head -1); echo "An edited line." >> "$f"
night edit bf16 --embedding-precision bf16
uptime
