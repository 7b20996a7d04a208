// The scripted agent's hands and eyes: only vmhub tools, used the way a model uses them — look
// (vm_screenshot, vm_find_text, vm_inspect), then act (vm_click, vm_type, vm_key, vm_drag, …) —
// with every call counted. A task's agent gets one `Agent` per lease; its checker reads the result
// from the machine with `machine` (vm_exec / vm_get_file), which the counts leave out.
/** @typedef {(name: string, args?: Record<string, unknown>) => Promise<any>} Call */

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const PAUSE_MS = 300;

/**
 * The naive variant's fixed sleeps (the way scripts without vm_wait wait): after a launch, and
 * wherever the agent would wait for a text or a window. Long enough for every task to pass here.
 */
export const NAIVE_SLEEP_MS = { launch: 8000, text: 3000, window: 3000 };

export class Agent {
  /**
   * @param {Call} call @param {string} lease
   * @param {{naive?: boolean}} [options] naive: fixed sleeps instead of vm_wait and window polling
   */
  constructor(call, lease, { naive = false } = {}) {
    this.lease = lease;
    this.naive = naive;
    this.toolCalls = 0;
    /** Actions taken (input tools); looks are tool calls but not steps. */
    this.steps = 0;
    this.log = [];
    this.call = async (name, args = {}) => {
      this.toolCalls += 1;
      this.log.push(name);
      return (await call(name, { lease_id: lease, ...args })).structuredContent;
    };
  }

  /**
   * An action. A model takes seconds between two calls; the scripted agent pauses PAUSE_MS before
   * each action, so applications that take input asynchronously (LibreOffice applies ctrl+b
   * through its dispatcher, after keys already queued) see calls paced like an agent's — still
   * far faster than a model's.
   */
  async act(name, args) {
    this.steps += 1;
    await sleep(PAUSE_MS);
    return this.call(name, args);
  }

  /** A screenshot (fitted), as a model takes one before acting. */
  look(args = {}) { return this.call('vm_screenshot', { max_width: 1280, ...args }); }

  /** Where `text` is on the screen (OCR), or [] when it is not. */
  async find(text) { return (await this.call('vm_find_text', { text })).matches; }

  /** Wait until `text` is on the screen (OCR); throws naming it after `seconds`. Naive: a fixed sleep. */
  async waitText(text, seconds = 30) {
    if (this.naive) return sleep(NAIVE_SLEEP_MS.text);
    const r = await this.call('vm_wait', { for: 'text', text, timeout_seconds: seconds });
    if (!r.satisfied) throw new Error(`"${text}" never appeared on the screen (${seconds} s)`);
    return r.match;
  }

  /** The focused window's accessibility tree (or the desktop's). */
  async inspect(args = {}) { return this.call('vm_inspect', { max_nodes: 1500, timeout_seconds: 5, ...args }); }

  /**
   * The first element of a fresh vm_inspect that `pred` accepts (within the first element
   * `inside` accepts, when given), polled until one does or `seconds` pass (applications fill
   * their trees as they start).
   */
  async element(pred, { seconds = 20, scope = 'window', what = 'element', inside, ...args } = {}) {
    const until = Date.now() + seconds * 1000;
    let last;
    for (;;) {
      last = await this.inspect({ scope, ...args });
      const hit = findNode(inside ? findNode(last.tree, inside) : last.tree, pred);
      if (hit?.ref) return hit;
      if (Date.now() > until) {
        const seen = findAll(last.tree, (n) => n.name || n.text).slice(0, 40).map((n) => `${n.role}:${(n.name ?? n.text).slice(0, 30)}`);
        throw new Error(`no ${what} in the accessibility tree after ${seconds} s (${last.nodes} nodes${last.truncated ? `, truncated by ${last.reason}` : ''}; root ${last.tree.role}:${last.tree.name ?? ''}; named: ${seen.join(' | ')})`);
      }
      await sleep(500);
    }
  }

  click(target) { return this.act('vm_click', target); }
  type(text, ref) { return this.act('vm_type', { text, ...(ref ? { ref } : {}) }); }
  key(keys, action) { return this.act('vm_key', { keys, ...(action ? { action } : {}) }); }
  /** Drag in the latest screenshot's pixels (where vm_find_text's boxes are). */
  drag(from, to) { return this.act('vm_drag', { from, to }); }

  /** Start an app and wait for its window. */
  async launch(app, args = [], wait = 20) {
    if (!this.naive) return this.act('vm_launch', { app, args, wait_seconds: wait });
    const r = await this.act('vm_launch', { app, args, wait_seconds: 0 });
    await sleep(NAIVE_SLEEP_MS.launch);
    return r;
  }

  /**
   * Save through the application's Save As dialog (GTK's file chooser, or LibreOffice's): the
   * keys that open it, the full path typed into its name field, then its Save button clicked
   * (found in the dialog's accessibility tree), and the window titled with the file's name
   * waited for.
   */
  async saveAs(path, keys = 'ctrl+shift+s') {
    await this.key(keys);
    await this.window('Save', 30);
    await this.type(path);
    const save = await this.element((n) => n.role === 'push button' && /^_?save$/i.test(n.name ?? ''), { what: 'the Save button' });
    await this.click({ ref: save.ref });
    await this.window(path.split('/').pop(), 30);
  }

  /** Start LibreOffice's `kind` (writer, calc) on `file` or a new document, and wait for its window. */
  async office(kind, file) {
    await this.launch('libreoffice', [`--${kind}`, '--norestore', ...(file ? [file] : [])], 20);
    const title = file ? file.split('/').pop() : `LibreOffice ${kind === 'calc' ? 'Calc' : 'Writer'}`;
    const w = await this.window(title, 90);
    // The title shows before the document takes input: wait until its tree has the document.
    await this.element((n) => /^document (text|spreadsheet)$/.test(n.role) && (n.states ?? []).includes('showing'), { seconds: 60, what: 'the document' });
    await this.look();
    return w;
  }

  /** The window whose title contains `part`, polled (naive: looked for once, after a fixed sleep). */
  async window(part, seconds = 30) {
    if (this.naive) await sleep(NAIVE_SLEEP_MS.window);
    const until = this.naive ? 0 : Date.now() + seconds * 1000;
    for (;;) {
      const w = (await this.call('vm_list_windows', { filter: part })).windows.find((x) => x.visible !== false);
      if (w) return w;
      if (Date.now() > until) throw new Error(`no window titled like "${part}" after ${seconds} s`);
      await sleep(500);
    }
  }
}

/** Depth-first search of an inspect tree. */
export function findNode(node, pred) {
  if (!node) return undefined;
  if (pred(node)) return node;
  for (const c of node.children ?? []) {
    const hit = findNode(c, pred);
    if (hit) return hit;
  }
  return undefined;
}

/** Every node `pred` accepts. */
export function findAll(node, pred, out = []) {
  if (!node) return out;
  if (pred(node)) out.push(node);
  for (const c of node.children ?? []) findAll(c, pred, out);
  return out;
}

/** The machine, for setups and checkers only (not counted as the agent's). */
export function machine(call, lease) {
  const sh = async (shell, timeout = 60) => {
    const r = (await call('vm_exec', { lease_id: lease, shell, timeout_seconds: timeout })).structuredContent;
    if (r.exit_code !== 0) throw new Error(`guest: \`${shell.slice(0, 120)}\` exited ${r.exit_code}: ${r.stderr.slice(0, 400)}`);
    return r.stdout;
  };
  return {
    sh,
    put: (path, content) => call('vm_put_file', { lease_id: lease, path, content }),
    /** A file's text, or undefined when it is not there. */
    async read(path) {
      const r = await call('vm_exec', { lease_id: lease, command: ['cat', path] }).then((x) => x.structuredContent, () => undefined);
      return r && r.exit_code === 0 ? r.stdout : undefined;
    },
    /** Polls `fn` (async, truthy when done) for `seconds`. */
    async until(fn, what, seconds = 15) {
      const end = Date.now() + seconds * 1000;
      for (;;) {
        const v = await fn();
        if (v) return v;
        if (Date.now() > end) throw new Error(`${what}: not within ${seconds} s`);
        await sleep(300);
      }
    },
  };
}
