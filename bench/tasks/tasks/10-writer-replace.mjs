// Replace a word everywhere in an existing document with Writer's Find & Replace, and save.
import { odfContent, odfText, writeOdt } from '../odf.mjs';

export default {
  id: 'writer-replace',
  title: 'Replace "Monday" with "Tuesday" in ~/memo.odt',
  async setup(m) {
    await writeOdt(m, '/home/user/memo.odt', 'The meeting is on Monday. Monday works for everyone.');
  },
  async agent(a) {
    await a.office('writer', '/home/user/memo.odt');
    // Read the document through the accessibility tree, as a text-only model would.
    await a.element((n) => n.role === 'paragraph' && /meeting is on Monday/.test(n.text ?? n.name ?? ''), { what: 'the memo\'s paragraph' });
    await a.key('ctrl+h');
    await a.window('Find and Replace', 30);
    // The fields carry no name of their own: each sits in the panel its label names.
    const field = (n) => ['combo box', 'text', 'entry'].includes(n.role);
    const find = await a.element(field, { inside: (n) => n.role === 'panel' && n.name === 'Search For', what: 'the Find field' });
    await a.type('Monday', find.ref);
    const replace = await a.element(field, { inside: (n) => n.role === 'panel' && n.name === 'Replace With', what: 'the Replace field' });
    await a.type('Tuesday', replace.ref);
    const all = await a.element((n) => n.role === 'push button' && /^replace all$/i.test(n.name ?? ''), { what: 'the Replace All button' });
    await a.click({ ref: all.ref });
    const close = await a.element((n) => n.role === 'push button' && /^close$/i.test(n.name ?? ''), { what: 'the Close button' });
    await a.click({ ref: close.ref });
    await a.key('ctrl+s');
    await a.look();
  },
  async check(m) {
    const text = await m.until(async () => {
      const t = odfText(await odfContent(m, '/home/user/memo.odt'));
      return t.includes('Tuesday') ? t : undefined;
    }, 'memo.odt saved with the change', 20);
    if (text.includes('Monday') || (text.match(/Tuesday/g) ?? []).length !== 2) throw new Error(`memo.odt reads ${JSON.stringify(text.trim())}`);
  },
};
