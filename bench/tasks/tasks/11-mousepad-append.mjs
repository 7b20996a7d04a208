// Open an existing file, add a line at its end, save.
export default {
  id: 'mousepad-append',
  title: 'Append a line to ~/todo.txt in mousepad',
  async setup(m) {
    await m.put('/home/user/todo.txt', 'call the bank\nwater the plants\n');
  },
  async agent(a) {
    await a.launch('mousepad', ['/home/user/todo.txt']);
    await a.window('todo.txt');
    await a.waitText('water the plants', 20);
    await a.key('ctrl+End');
    await a.type('book the train\n');
    await a.key('ctrl+s');
    await a.look();
  },
  async check(m) {
    await m.until(async () => (await m.read('/home/user/todo.txt')) === 'call the bank\nwater the plants\nbook the train\n', 'todo.txt with the new line', 20);
  },
};
