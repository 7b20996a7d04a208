// Fill a sign-up form in Firefox and submit it; the site's own log says what arrived.
import { SITE, siteLog, startSite } from '../site.mjs';

export default {
  id: 'firefox-form',
  title: 'Fill and submit a web form in Firefox',
  setup: startSite,
  async agent(a) {
    await a.launch('firefox-esr', [`${SITE}/`], 20);
    await a.waitText('Sign up for the newsletter', 60);
    const name = await a.element((n) => n.role === 'entry' && /full name/i.test(n.name ?? ''), { what: 'the name field' });
    await a.type('Ada Lovelace', name.ref);
    const email = await a.element((n) => n.role === 'entry' && /email/i.test(n.name ?? ''), { what: 'the email field' });
    await a.type('ada@example.org', email.ref);
    const button = await a.element((n) => n.role === 'push button' && /sign up/i.test(n.name ?? ''), { what: 'the Sign up button' });
    await a.click({ ref: button.ref });
    await a.waitText('Thanks', 30);
  },
  async check(m) {
    const posts = (await siteLog(m)).filter((r) => r.method === 'POST' && r.path === '/signup');
    if (posts.length !== 1) throw new Error(`${posts.length} sign-ups arrived`);
    const f = posts[0].fields;
    if (f.name !== 'Ada Lovelace' || f.email !== 'ada@example.org') throw new Error(`the form arrived as ${JSON.stringify(f)}`);
  },
};
