// Select a range of files with shift held (vm_key down/up around a click) and delete them,
// confirming thunar's dialog.
export default {
  id: 'thunar-shift-select',
  title: 'Shift-click a.tmp to c.tmp in thunar and delete them',
  async setup(m) {
    await m.sh('mkdir -p /home/user/junk && cd /home/user/junk && for f in a.tmp b.tmp c.tmp keep.txt; do echo $f > $f; done');
  },
  async agent(a) {
    await a.launch('thunar', ['/home/user/junk']);
    await a.window('junk');
    await a.waitText('keep.txt', 20);
    await a.click({ text: 'a.tmp' });
    await a.key('shift', 'down');
    await a.click({ text: 'c.tmp' });
    await a.key('shift', 'up');
    await a.key('Delete');
    // Without a trash (no gvfs in the golden) thunar asks before deleting for good.
    await a.waitText('selected files', 20);
    const del = await a.element((n) => n.role === 'push button' && /^_?delete$/i.test(n.name ?? ''), { what: 'the dialog\'s Delete button' });
    await a.click({ ref: del.ref });
    await a.look();
  },
  async check(m) {
    await m.until(async () => (await m.sh('ls /home/user/junk')).trim() === 'keep.txt', 'only keep.txt left in ~/junk', 20);
  },
};
