// Move a file into a folder by dragging it onto the folder in the file manager.
export default {
  id: 'thunar-drag',
  title: 'Drag ~/inbox/report.txt onto the archive folder in thunar',
  async setup(m) {
    await m.sh('mkdir -p /home/user/inbox/archive && echo "q3 numbers" > /home/user/inbox/report.txt');
  },
  async agent(a) {
    await a.launch('thunar', ['/home/user/inbox']);
    await a.window('inbox');
    await a.waitText('report.txt', 20);
    const shot = await a.look();
    const [file] = await a.find('report.txt');
    const [folder] = await a.find('archive');
    if (!file || !folder) throw new Error('report.txt or archive is not on the screen');
    // The icons sit above their labels (latest-screenshot pixels): grab and drop on the icons.
    const at = (b) => ({ x: Math.round(b.x + b.width / 2), y: Math.max(0, Math.round(b.y - 24 * shot.scale)) });
    await a.drag(at(file), at(folder));
    await a.waitText('archive', 10);
  },
  async check(m) {
    await m.until(async () => (await m.read('/home/user/inbox/archive/report.txt')) === 'q3 numbers\n', 'report.txt moved into archive');
    if ((await m.read('/home/user/inbox/report.txt')) !== undefined) throw new Error('report.txt is still in ~/inbox (copied, not moved)');
  },
};
