#!/bin/sh
# A command hook in Claude Code's protocol: the tool call arrives as JSON on stdin;
# exit 2 with a message on stderr blocks it. This one refuses to pipe a download into a shell.
payload=$(cat)
if printf '%s' "$payload" | grep -Eq 'curl[^|]*\|[[:space:]]*(ba|z)?sh'; then
  echo "piping a download into a shell runs unreviewed code" >&2
  exit 2
fi
exit 0
