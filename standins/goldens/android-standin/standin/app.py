"""The stand-in's "app": a real Tk window on the Xvfb display, started per package by am/monkey.

Default UI (com.vmhub.standin): a title, a text field (EditText) and a button (Button) whose
label and colour change on every tap. With --launcher it is the home screen: one icon that
starts the stand-in app. Its state (taps, button label and colour, the field's text) is written
to data/data/<pkg>/files/state.json on every change, so tests read what really arrived.

A UNIX socket at data/data/<pkg>/ui.sock answers one line per connection:
  state  → the state as JSON        tree → the widget tree with screen bounds (uiautomator)
  show   → map, raise and focus      hide → unmap (the task went to the background)
"""
import argparse
import json
import os
import socket
import sys
import tkinter as tk

sys.dont_write_bytecode = True  # no __pycache__ beside the sources (tests run them in place)
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import android  # noqa: E402

COLOURS = ['#1565c0', '#2e7d32', '#ef6c00']  # blue, then green / orange alternating per tap


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--package', required=True)
    ap.add_argument('--activity', required=True)
    ap.add_argument('--label', default='')
    ap.add_argument('--launcher', action='store_true')
    a = ap.parse_args()
    App(a).run()


class App:
    def __init__(self, a):
        self.pkg, self.activity, self.launcher = a.package, a.activity, a.launcher
        self.data = android.path('data/data', self.pkg)
        os.makedirs(os.path.join(self.data, 'files'), exist_ok=True)
        self.root = tk.Tk(className=self.pkg)
        self.root.title(f'{self.pkg}/{self.activity}')
        w, h = self.root.winfo_screenwidth(), self.root.winfo_screenheight()
        self.root.geometry(f'{w}x{h}+0+0')
        self.root.configure(bg='#263238' if self.launcher else '#fafafa')
        self.taps = 0
        self.nodes = []  # (widget, class, resource-id, kind) in tree order
        big = ('DejaVu Sans', 40)
        # The status bar strip SystemUI draws over every app (dumpsys lists its StatusBar window).
        tk.Frame(self.root, bg='#101418', height=63).place(x=0, y=0, width=w, height=63)
        if self.launcher:
            self.title = tk.Label(self.root, text='Home', font=big, fg='#eceff1', bg='#263238')
            self.button = tk.Button(self.root, text=a.label or 'vmhub stand-in', font=big, bg='#37474f', fg='white',
                                    activebackground='#455a64', command=self.open_app)
            self.title.place(x=60, y=160)
            self.button.place(x=60, y=400, width=w - 120, height=240)
            self.entry = None
            self.nodes = [(self.title, 'android.widget.TextView', 'title', 'text'),
                          (self.button, 'android.widget.TextView', 'app_icon', 'button')]
        else:
            self.text = tk.StringVar()
            self.title = tk.Label(self.root, text=a.label or self.pkg, font=big, bg='#fafafa')
            self.entry = tk.Entry(self.root, textvariable=self.text, font=('DejaVu Sans', 36))
            self.button = tk.Button(self.root, text='Tap me', font=big, fg='white', bg=COLOURS[0],
                                    activebackground=COLOURS[0], command=self.tapped)
            self.title.place(x=60, y=120)
            self.entry.place(x=60, y=400, width=w - 120, height=140)
            self.button.place(x=60, y=700, width=w - 120, height=240)
            self.nodes = [(self.title, 'android.widget.TextView', 'title', 'text'),
                          (self.entry, 'android.widget.EditText', 'input', 'edit'),
                          (self.button, 'android.widget.Button', 'button', 'button')]
            self.text.trace_add('write', lambda *_: self.save())
            self.entry.focus_set()
        self.root.bind('<FocusIn>', lambda _e: self.save())
        self.listen()
        self.root.after(50, self.save)

    def run(self):
        self.root.mainloop()

    # ---- behaviour -------------------------------------------------------------------------

    def tapped(self):
        self.taps += 1
        colour = COLOURS[1 + (self.taps - 1) % 2]
        self.button.configure(text=f'Tapped {self.taps}', bg=colour, activebackground=colour)
        self.save()

    def open_app(self):
        # The launcher icon runs am like a real launcher fires an intent.
        os.spawnlp(os.P_NOWAIT, 'am', 'am', 'start', '-n', 'com.vmhub.standin/.MainActivity')

    def state(self):
        focus = self.root.focus_get()
        out = {'package': self.pkg, 'activity': self.activity, 'taps': self.taps,
               'button_text': self.button.cget('text'), 'button_color': self.button.cget('bg'),
               'visible': bool(self.root.winfo_viewable()),
               'focus': next((rid for w, _c, rid, _k in self.nodes if w is focus), None)}
        if self.entry is not None:
            out['text'] = self.text.get()
        return out

    def save(self):
        file = os.path.join(self.data, 'files', 'state.json')
        tmp = file + '.tmp'
        with open(tmp, 'w', encoding='utf-8') as f:
            json.dump(self.state(), f, ensure_ascii=False)
        os.replace(tmp, file)

    # ---- UI tree (what uiautomator dump serialises) ------------------------------------------

    def tree(self):
        r = self.root
        w, h = r.winfo_screenwidth(), r.winfo_screenheight()
        focus = r.focus_get()
        kids = []
        for i, (wd, cls, rid, kind) in enumerate(self.nodes):
            x, y = wd.winfo_rootx(), wd.winfo_rooty()
            text = self.text.get() if kind == 'edit' else wd.cget('text')
            kids.append({'index': i, 'class': cls, 'resource-id': f'{self.pkg}:id/{rid}', 'text': text,
                         'clickable': kind in ('button', 'edit'), 'focusable': kind in ('button', 'edit'),
                         'focused': wd is focus, 'long-clickable': kind == 'edit',
                         'bounds': [x, y, x + wd.winfo_width(), y + wd.winfo_height()]})
        content = {'index': 0, 'class': 'android.widget.FrameLayout', 'resource-id': 'android:id/content',
                   'bounds': [0, 0, w, h], 'children': kids}
        return {'package': self.pkg, 'rotation': 0, 'width': w, 'height': h,
                'root': {'index': 0, 'class': 'android.widget.FrameLayout', 'bounds': [0, 0, w, h],
                         'children': [content]}}

    # ---- the UI socket ---------------------------------------------------------------------

    def listen(self):
        sock_path = os.path.join(self.data, 'ui.sock')
        try:
            os.unlink(sock_path)
        except FileNotFoundError:
            pass
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(sock_path)
        self.sock.listen(8)
        self.root.tk.createfilehandler(self.sock, tk.READABLE, lambda *_: self.serve())

    def serve(self):
        conn, _ = self.sock.accept()
        with conn:
            conn.settimeout(2)
            try:
                line = conn.recv(4096).decode('utf-8', 'replace').strip()
                if line == 'show':
                    self.root.deiconify()
                    self.root.lift()
                    self.root.update_idletasks()
                    self.root.focus_force()
                    (self.entry or self.button).focus_set()
                elif line == 'hide':
                    self.root.withdraw()
                self.root.update_idletasks()
                answer = self.tree() if line == 'tree' else self.state()
                conn.sendall(json.dumps(answer, ensure_ascii=False).encode('utf-8'))
            except OSError:
                pass
        self.save()


if __name__ == '__main__':
    main()
