#!/usr/bin/env bash
# Opens the built documentation site (.build/docs, from scripts/docs.sh) in a real headless
# browser and checks that pages render: DocC's pages are a JavaScript app that fetches each
# page's JSON, so a page that only exists as a file, or whose data is missing or broken, shows
# nothing of its content. For each page the rendered DOM must have the page's title as its
# heading and a phrase of its abstract in the abstract; a screenshot of each goes to
# .build/docs-check/.
#
# Usage: scripts/docs-check.sh [PATH|TITLE|PHRASE ...]
#   PATH is the page's path under the site root; without arguments, the landing page and the
#   RealtimeCapturePipeline page are checked.
# Needs python3 (the web server) and chromium (`scripts/bootstrap.sh chromium` installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

SITE=${DOCS_OUT:-.build/docs}
SHOTS=.build/docs-check
CHROMIUM=${CHROMIUM:-chromium}
# Virtual time the page may run before the DOM is taken (ms): the app loads its scripts and
# the page's JSON within it; virtual time runs ahead while the page waits on nothing.
BUDGET=${DOCS_CHECK_BUDGET:-20000}

if [ $# -eq 0 ]; then
  set -- \
    "documentation/pcmmix/|PCMMix|Turn two live PCM streams" \
    "documentation/pcmmix/realtimecapturepipeline/|RealtimeCapturePipeline|The capture pipeline for three threads"
fi
[ -f "$SITE/index.html" ] || { echo "docs-check: no site at $SITE (run make docs)" >&2; exit 1; }
command -v "$CHROMIUM" >/dev/null 2>&1 || {
  echo "docs-check: no $CHROMIUM (scripts/bootstrap.sh chromium)" >&2
  exit 1
}

work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A web server on a free port (port 0: the system picks one; the server prints it).
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$SITE" >"$work/server.log" 2>&1 &
server=$!
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' "$work/server.log" | head -1)
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/server.log" >&2; echo "docs-check: the web server did not start" >&2; exit 1; }

rm -rf "$SHOTS"
mkdir -p "$SHOTS"
browse() {  # browse URL ARGS...: one headless chromium run with a profile of its own
  local url=$1
  shift
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/profile" --virtual-time-budget="$BUDGET" "$@" "$url" 2>>"$work/chromium.log"
}

failed=0
for spec in "$@"; do
  IFS='|' read -r path title phrase <<<"$spec"
  url="http://127.0.0.1:$port/$path"
  name=$(printf '%s' "${path%/}" | tr '/' '-')
  dom="$SHOTS/$name.html"
  browse "$url" --dump-dom >"$dom" || true
  browse "$url" --window-size=1280,1600 --screenshot="$SHOTS/$name.png" >/dev/null || true
  # The rendered heading (h1.title) and abstract (the first element of class "abstract"), as
  # text; the static page holds neither until the app has rendered the page's data.
  if python3 - "$dom" "$title" "$phrase" <<'EOF'
import html.parser, re, sys

path, title, phrase = sys.argv[1:]
text = open(path, encoding="utf-8", errors="replace").read()

class Page(html.parser.HTMLParser):
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
            "track", "wbr"}

    def __init__(self):
        super().__init__()
        self.stack = []  # (tag, role) where role is "title", "abstract" or None
        self.found = {"title": None, "abstract": None}
        self.buffers = {"title": [], "abstract": []}

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        role = None
        if tag == "h1" and "title" in classes and self.found["title"] is None:
            role = "title"
        elif "abstract" in classes and self.found["abstract"] is None:
            if not any(r == "abstract" for _, r in self.stack):
                role = "abstract"
        self.stack.append((tag, role))

    def handle_endtag(self, tag):
        while self.stack:
            t, role = self.stack.pop()
            if role:
                self.found[role] = re.sub(r"\s+", " ", "".join(self.buffers[role])).strip()
            if t == tag:
                break

    def handle_data(self, data):
        for role in ("title", "abstract"):
            if self.found[role] is None and any(r == role for _, r in self.stack):
                self.buffers[role].append(data)

page = Page()
page.feed(text)
heading = page.found["title"] or ""
abstract = (page.found["abstract"] or "").replace("\u2019", "'")
problems = []
if heading != title:
    problems.append(f"heading is {heading!r}, not {title!r}")
if phrase not in abstract:
    problems.append(f"abstract {abstract[:120]!r} lacks {phrase!r}")
for p in problems:
    print(f"  {p}", file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
  then
    echo "docs-check: ok    /$path renders '$title' ($SHOTS/$name.png)"
  else
    echo "docs-check: FAIL  /$path does not render (DOM in $dom)" >&2
    failed=1
  fi
done
exit "$failed"
