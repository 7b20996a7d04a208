// Copy a line out of one application and paste it into another: mousepad → Writer.
import { odfContent, odfText } from '../odf.mjs';

const QUOTE = 'Simplicity is prerequisite for reliability. — Edsger W. Dijkstra';

export default {
  id: 'paste-between',
  title: 'Copy a quote from mousepad into a new Writer document and save it',
  async setup(m) {
    await m.put('/home/user/quote.txt', `${QUOTE}\n`);
  },
  async agent(a) {
    await a.launch('mousepad', ['/home/user/quote.txt']);
    await a.window('quote.txt');
    await a.look();
    await a.key('ctrl+a');
    await a.key('ctrl+c');
    const clip = await a.call('vm_get_clipboard', {});
    if (!clip.text?.includes('Dijkstra')) throw new Error(`the clipboard holds ${JSON.stringify(clip.text)}`);
    await a.office('writer');
    await a.key('ctrl+shift+alt+v'); // paste unformatted text
    await a.saveAs('/home/user/quote.odt');
  },
  async check(m) {
    await m.until(() => m.read('/home/user/quote.odt').then((t) => t !== undefined), 'quote.odt saved');
    const text = odfText(await odfContent(m, '/home/user/quote.odt'));
    if (!text.includes(QUOTE)) throw new Error(`quote.odt holds ${JSON.stringify(text.slice(0, 200))}`);
  },
};
