# Cross-check (run by text-formats.test.ts when /usr/bin/python3 has tabulate, Debian python3-tabulate):
# the stand-in's Snapshot/State-Tool text against the real tabulate + textwrap.dedent applied to the
# same data in the f-string shapes of Windows-MCP 0.8.2 build_snapshot_response and 0.5.8 State-Tool.
import json, sys
from textwrap import dedent
from tabulate import tabulate
H = ["Name", "Depth", "Status", "Width", "Height", "Handle"]
d = json.load(open(sys.argv[1]))
W, Hh = d['screen']['width'], d['screen']['height']
scale = min(1.0, 1920 / W, 1080 / Hh)
k = round(1.0 / scale, 6)
meta = f"Cursor Position: {(d['pointer']['x'], d['pointer']['y'])}\n"
meta += (f"Screenshot Original Size: ({W},{Hh})\n"
         f"Screenshot Coordinate Scale: {k} — image pixels are downscaled; multiply every image pixel coordinate by {k} before passing to Click, Move, Scroll, or any loc= argument "
         f"(e.g. image pixel (200, 150) → screen coordinate ({round(200 * k)}, {round(150 * k)}))\n")
meta += "Screenshot Backend: standin\n"
desk = tabulate([["Default Desktop"]], headers=["Name"], tablefmt="simple")
aw = tabulate([d['focused']], headers=H, tablefmt="simple")
ws = tabulate(d['others'], headers=H, tablefmt="simple")
text = dedent(f'''
    {meta}
    Active Desktop:
    {desk}

    All Desktops:
    {desk}

    Focused Window:
    {aw}

    Opened Windows:
    {ws}
    ''')
ours = d['text']
head = ours[:ours.index('\n\n\nUI Tree:')+1]
ok = head == text
print('0.8.2 equal:', ok)
if head != text:
    import difflib; print('\n'.join(difflib.unified_diff(text.split('\n'), head.split('\n'), lineterm='')))
o = json.load(open(sys.argv[2]))
rows = [[i, e['title'], e['ct'], e['name'], e['value'], '', e['center'], e['focused']] for i, e in enumerate(o['els'])]
ie = tabulate(rows, headers=["Label", "App Name", "ControlType", "Name", "Value", "Shortcut", "Coordinates", "IsFocused"], tablefmt="simple")
t58 = dedent(f'''
    Default Language of User:
    English (United States) with encoding: utf-8
                            
    Focused App:
    {tabulate([o['focused']], headers=H, tablefmt="simple")}

    Opened Apps:
    {tabulate(o['others'], headers=H, tablefmt="simple")}

    List of Interactive Elements:
    {ie or 'No interactive elements found.'}

    List of Scrollable Elements:
    {'No scrollable elements' or 'No scrollable elements found.'}
    ''')
ok = ok and t58 == o['text']
print('0.5.8 equal:', t58 == o['text'])
if t58 != o['text']:
    import difflib; print('\n'.join(difflib.unified_diff(t58.split('\n'), o['text'].split('\n'), lineterm='')))
sys.exit(0 if ok else 1)
