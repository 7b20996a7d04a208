/**
 * Templates the docker provider offers out of the box: debian-x11, and one per golden folder that
 * ships a template.json (wayland-sway; in a checkout also the stand-ins of @vmhub/standin-goldens,
 * see golden-manifest.ts). The golden tag is computed from the shipped
 * manifest, so a template always names the image this package version builds. Stand-in templates
 * carry `standin: true`; the server lists them only when `standin_templates` is on.
 */
import type { TemplateConfig } from '@vmhub/core';
import { goldenImageTag } from './golden-build.ts';
import { goldenNames, goldenTemplate } from './golden-manifest.ts';

export const debianX11Template: TemplateConfig = {
  id: 'debian-x11',
  provider: 'docker',
  adapter: 'x11',
  os: 'linux',
  golden: goldenImageTag('debian-x11'),
  description: 'Debian 12 desktop in a container: Xvfb 1280x800, openbox, xterm, git; networking off',
  resources: { cpus: 1, memory_mb: 1024 },
  ready_timeout_seconds: 60,
};

export const DOCKER_TEMPLATES: TemplateConfig[] = [
  debianX11Template,
  ...goldenNames().filter((n) => n !== debianX11Template.id).flatMap((n) => goldenTemplate(n) ?? []),
];
