#!/usr/bin/env bash
# Renders the marketing home page's background video from generated frames only (no
# external media): a dusk-to-day sky gradient, a slowly drifting grid of flight-plan
# graticule lines, a dashed route and a small aircraft marker crossing the frame.
#   output: web/apps/marketing/src/media/home-video.webm (VP9, no audio, 960x300, 8 s loop)
# The page plays it muted and looping and fades it in after 1 % and out at 98 % of its
# length, so the first and last frames need not match. Re-run after changing the recipe
# and commit the file; the size should stay at or below ~300 KB.
# Needs ffmpeg with libvpx-vp9 (Debian's ffmpeg): installed with apt when missing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/web/apps/marketing/src/media/home-video.webm}"

if ! command -v ffmpeg >/dev/null 2>&1; then
  echo "==> installing ffmpeg (apt)" >&2
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq ffmpeg >/dev/null
fi

W=960 H=300 FPS=24 DURATION=8
mkdir -p "$(dirname "$out")"

# The sky: a vertical gradient whose colours drift with time and a graticule scrolling
# left, both per pixel (geq, T is the time); a dashed route line; then (drawtext, whose t
# is the time) an aircraft glyph with its flight label crossing along the route.
grid="40*gt(lte(mod(X+40*T,160),1)+lte(mod(Y,100),1),0)"
sky="geq=r='clip(20+60*(Y/H)+25*sin(2*PI*T/${DURATION})+${grid},0,255)':g='clip(50+90*(Y/H)+20*sin(2*PI*T/${DURATION})+${grid},0,255)':b='clip(110+110*(Y/H)+${grid},0,255)'"
route="drawbox=x=0:y=ih*0.62:w=iw:h=2:c=white@0.35:t=fill"
path_x="mod(t*${W}/${DURATION}\,w)"
path_y="h*0.62-30*sin(PI*t/${DURATION})"
marker="drawtext=text='✈':fontsize=34:fontcolor=0xffd166:x='${path_x}-17':y='${path_y}-26'"
label="drawtext=text='HGR 101  FL350':fontsize=18:fontcolor=white@0.8:x='${path_x}+22':y='${path_y}-34'"

filters="$sky,$route"
# drawtext needs a font; Debian's ffmpeg finds DejaVu (which has the aircraft glyph)
# through fontconfig when it is installed (fonts-dejavu-core comes with ffmpeg's deps).
if fc-list 2>/dev/null | grep -qi dejavu; then filters="$filters,$marker,$label"; fi

ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "color=c=black:s=${W}x${H}:r=${FPS}:d=${DURATION},format=rgb24" \
  -vf "$filters,format=yuv420p" \
  -an -c:v libvpx-vp9 -b:v 0 -crf 45 -deadline good -cpu-used 4 -row-mt 1 -g $((FPS * 2)) \
  -metadata title="Hangar home background (generated)" \
  "$out"

size=$(stat -c %s "$out")
echo "==> $out: $size bytes" >&2
if (( size > 320000 )); then
  echo "make-home-video: $size bytes is over the ~300 KB budget; raise -crf" >&2
  exit 1
fi
