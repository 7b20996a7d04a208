// Write a short list in the text editor and save it under a given name.
const TEXT = 'Shopping list\nmilk\nbread\n';

export default {
  id: 'mousepad-note',
  title: 'Write a list in mousepad and save it as ~/list.txt',
  async agent(a) {
    await a.launch('mousepad');
    await a.window('Mousepad');
    await a.look();
    await a.type(TEXT);
    await a.saveAs('/home/user/list.txt', 'ctrl+s');
    await a.look();
  },
  async check(m) {
    const text = await m.until(() => m.read('/home/user/list.txt'), 'list.txt written');
    if (text !== TEXT) throw new Error(`list.txt holds ${JSON.stringify(text)}`);
  },
};
