// Write a paragraph with a bold phrase in LibreOffice Writer and save it as .odt.
import { boldRuns, odfContent, odfText } from '../odf.mjs';

export default {
  id: 'writer-bold',
  title: 'Write a formatted paragraph in Writer and save it as ~/report.odt',
  async agent(a) {
    await a.office('writer');
    await a.key('ctrl+b');
    await a.type('Quarterly report');
    await a.key('ctrl+b');
    await a.type(' is ready for review.');
    await a.saveAs('/home/user/report.odt');
  },
  async check(m) {
    await m.until(() => m.read('/home/user/report.odt').then((t) => t !== undefined), 'report.odt saved');
    const xml = await odfContent(m, '/home/user/report.odt');
    if (!odfText(xml).includes('Quarterly report is ready for review.')) throw new Error(`the text is ${JSON.stringify(odfText(xml).slice(0, 200))}`);
    const runs = boldRuns(xml);
    const bold = runs.filter((r) => r.bold).map((r) => r.text).join('');
    if (bold !== 'Quarterly report') throw new Error(`the bold text is ${JSON.stringify(bold)} (runs ${JSON.stringify(runs)})`);
  },
};
