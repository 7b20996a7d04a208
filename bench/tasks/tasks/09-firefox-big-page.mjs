// A page of 10 000 rows: the accessibility tree is cut by its budget, not a hang, and a ref from
// it clicks the right link (the site's log says which row was picked).
import { SITE, siteLog, startSite } from '../site.mjs';

export default {
  id: 'firefox-big-page',
  title: 'On a 10 000-row page, pick row 3 through the accessibility tree',
  setup: startSite,
  async agent(a) {
    await a.launch('firefox-esr', [`${SITE}/rows`], 20);
    await a.waitText('Ten thousand rows', 60);
    const link = await a.element((n) => n.role === 'link' && n.name === 'pick 3', { what: 'the link "pick 3"' });
    await a.click({ ref: link.ref });
    await a.waitText('Picked row 3', 30);
  },
  async check(m) {
    const picks = (await siteLog(m)).filter((r) => r.path.startsWith('/pick'));
    if (picks.length !== 1 || picks[0].path !== '/pick?row=3') throw new Error(`picked: ${JSON.stringify(picks.map((p) => p.path))}`);
  },
};
