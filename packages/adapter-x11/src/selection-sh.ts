/**
 * Shell helper shared by paste and set_clipboard: make xclip own a selection and return only once
 * it does. Plain `xclip -i` forks and exits before the child has taken the selection, so a read
 * right after could still see the old owner. `-verbose` keeps xclip in the foreground (we
 * background it ourselves, stdio in files so the guest command can end) and prints a line per
 * served request once it owns the selection; it exits by itself when another client takes over.
 *
 *   own SELECTION FILE [LOOPS]   (LOOPS: serve that many transfers then exit; default forever)
 */
export const OWN_FN = String.raw`
own() {
  if [ "$#" -ge 3 ]; then xclip -selection "$1" -i -verbose -loops "$3" < "$2" > "$2.log" 2>&1 &
  else xclip -selection "$1" -i -verbose < "$2" > "$2.log" 2>&1 & fi
  own_pid=$!
  own_i=0
  until grep -q -e 'Waiting for a selection request' -e 'Waiting for selection request number' "$2.log" 2>/dev/null; do
    if ! kill -0 "$own_pid" 2>/dev/null; then cat "$2.log" >&2; return 71; fi
    own_i=$((own_i+1)); if [ "$own_i" -gt 300 ]; then kill "$own_pid"; echo 'xclip did not take the selection within 3 s' >&2; return 71; fi
    sleep 0.01
  done
}
`;
