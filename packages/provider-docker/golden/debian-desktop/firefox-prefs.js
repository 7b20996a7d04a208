// debian-desktop: Firefox ESR default preferences (installed by setup.sh into Firefox's
// defaults/pref folder). What the enterprise policies (policies.json) cannot set: the privacy
// notice tab of the second start, the welcome page and the default-browser question.
pref("datareporting.policy.firstRunURL", "");
pref("datareporting.policy.dataSubmissionPolicyBypassNotification", true);
pref("toolkit.telemetry.reportingpolicy.firstRun", false);
pref("browser.aboutwelcome.enabled", false);
pref("trailhead.firstrun.didSeeAboutWelcome", true);
pref("browser.startup.homepage_override.mstone", "ignore");
pref("browser.shell.checkDefaultBrowser", false);
pref("browser.tabs.warnOnClose", false);
pref("browser.sessionstore.resume_from_crash", false);
pref("app.update.enabled", false);
pref("accessibility.force_disabled", 0);
