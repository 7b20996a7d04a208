// Enter a column of numbers in LibreOffice Calc, sum it with a formula, save as .ods.
import { odfContent } from '../odf.mjs';

export default {
  id: 'calc-sum',
  title: 'Sum a column in Calc and save it as ~/sum.ods',
  async agent(a) {
    await a.office('calc');
    await a.type('12\n30\n58\n100\n=SUM(A1:A4)\n');
    await a.saveAs('/home/user/sum.ods');
  },
  async check(m) {
    await m.until(() => m.read('/home/user/sum.ods').then((t) => t !== undefined), 'sum.ods saved');
    const xml = await odfContent(m, '/home/user/sum.ods');
    const cell = /<table:table-cell[^>]*table:formula="of:=SUM\(\[\.A1:\.A4\]\)"[^>]*>/.exec(xml)?.[0];
    if (!cell) throw new Error('no =SUM(A1:A4) cell in the sheet');
    if (!/office:value="200"/.test(cell)) throw new Error(`the sum cell is ${cell}`);
  },
};
