/**
 * The HTML shell every page shares (the list, a lease, the sign-in page). No inline script or style anywhere (the CSP allows only
 * 'self'), and every asset is a path the server serves from UI_FILES (scripts bundled from ui/browser/).
 */
export function page(title: string, script: string, main: string, options: { referrer?: string } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${options.referrer ?? 'no-referrer'}">
<title>${title}</title>
<link rel="stylesheet" href="/ui/app.css">
<script src="${script}" defer></script>
</head>
<body>
<header class="top">
<a class="brand" href="/ui/">vmhub</a>
<span class="principal" id="principal" title="signed in as" hidden></span>
</header>
<p id="message" class="message" role="status" hidden></p>
${main}
</body>
</html>
`;
}
