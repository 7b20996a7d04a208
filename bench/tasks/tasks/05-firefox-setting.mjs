// Find a setting in Firefox's preferences and change it; the profile's prefs.js says it changed.
export default {
  id: 'firefox-setting',
  title: 'Turn on "Ctrl+Tab cycles through tabs in recently used order" in Firefox',
  async agent(a) {
    await a.launch('firefox-esr', ['about:preferences'], 20);
    await a.waitText('Settings', 45);
    // The way a person finds a setting: the page's own search.
    const search = await a.element((n) => n.role === 'entry' && /find in settings/i.test(n.name ?? ''), { what: 'the settings search field' });
    await a.type('recently used', search.ref);
    await a.waitText('recently used order', 30);
    const box = await a.element((n) => n.role === 'check box' && /recently used order/i.test(n.name ?? ''), { what: 'the Ctrl+Tab check box' });
    if ((box.states ?? []).includes('checked')) throw new Error('the box was already checked');
    await a.click({ ref: box.ref });
    const after = await a.element((n) => n.role === 'check box' && /recently used order/i.test(n.name ?? ''), { what: 'the Ctrl+Tab check box' });
    if (!(after.states ?? []).includes('checked')) throw new Error('the box is not checked after the click');
    // Quitting writes the profile's prefs.js at once; Firefox asks first.
    await a.key('ctrl+q');
    const quit = await a.element((n) => n.role === 'push button' && /^quit firefox$/i.test(n.name ?? ''), { what: 'the Quit Firefox button' });
    await a.click({ ref: quit.ref });
  },
  async check(m) {
    await m.until(async () => {
      const out = await m.sh('find /home/user -name prefs.js -path \'*mozilla*\' -exec cat {} + 2>/dev/null | grep -c \'"browser.ctrlTab.sortByRecentlyUsed", true\' || true');
      return Number(out.trim()) > 0;
    }, 'browser.ctrlTab.sortByRecentlyUsed true in prefs.js', 30);
  },
};
