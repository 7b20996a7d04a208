// Rename a file in the file manager (select it, F2, type the new name).
export default {
  id: 'thunar-rename',
  title: 'Rename ~/photos/IMG_0001.jpg to beach.jpg in thunar',
  async setup(m) {
    await m.sh('mkdir -p /home/user/photos && head -c 2048 /dev/urandom > /home/user/photos/IMG_0001.jpg');
  },
  async agent(a) {
    await a.launch('thunar', ['/home/user/photos']);
    await a.window('photos');
    await a.waitText('IMG_0001', 30);
    await a.click({ text: 'IMG_0001' });
    await a.key('F2');
    await a.window('Rename', 20);
    await a.key('ctrl+a');
    await a.type('beach.jpg\n');
    await a.waitText('beach', 20);
  },
  async check(m) {
    await m.until(async () => (await m.sh('ls /home/user/photos')).trim() === 'beach.jpg', 'only beach.jpg in ~/photos');
  },
};
