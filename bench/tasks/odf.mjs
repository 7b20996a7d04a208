// Reading an OpenDocument file the agent saved, from the machine: its content.xml (python3's
// zipfile in the guest), and small readers for what the checkers ask of it.

/** content.xml of the .odt/.ods at `path` in the lease. */
export async function odfContent(m, path) {
  return m.sh(`python3 -c "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('content.xml').decode('utf-8'))" ${JSON.stringify(path)}`);
}

/** The plain text of a content.xml (tags dropped, entities of XML decoded). */
export function odfText(xml) {
  return xml.replace(/<text:tab\/>/g, '\t').replace(/<text:s\/>/g, ' ').replace(/<text:line-break\/>/g, '\n').replace(/<\/text:p>/g, '\n').replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/** Each automatic style's font weight ('bold' / 'normal'), where it sets one. */
function weights(xml) {
  const out = new Map();
  for (const m of xml.matchAll(/<style:style style:name="([^"]+)"[^>]*>([\s\S]*?)<\/style:style>/g)) {
    const w = /fo:font-weight="([^"]+)"/.exec(m[2])?.[1];
    if (w) out.set(m[1], w);
  }
  return out;
}

/**
 * The text runs of every paragraph with whether each is bold: a span's own weight where its
 * style sets one, else its paragraph's (LibreOffice often makes the paragraph bold and the
 * rest a "normal" span).
 */
export function boldRuns(xml) {
  const w = weights(xml);
  const runs = [];
  for (const p of xml.matchAll(/<text:p(?: text:style-name="([^"]*)")?[^>]*>([\s\S]*?)<\/text:p>/g)) {
    const paraBold = w.get(p[1]) === 'bold';
    for (const part of p[2].matchAll(/<text:span text:style-name="([^"]+)">([\s\S]*?)<\/text:span>|([^<]+)/g)) {
      if (part[3] !== undefined) runs.push({ text: odfText(part[3]), bold: paraBold });
      else runs.push({ text: odfText(part[2]), bold: w.has(part[1]) ? w.get(part[1]) === 'bold' : paraBold });
    }
  }
  return runs;
}

/**
 * A minimal OpenDocument text file with one paragraph, written in the lease by python3's zipfile
 * (a setup's file: no LibreOffice instance is started for it, which a later launch would reuse).
 */
export async function writeOdt(m, path, paragraph) {
  const esc = paragraph.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3"><office:body><office:text><text:p>${esc}</text:p></office:text></office:body></office:document-content>`;
  const manifest = '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>';
  await m.put('/tmp/odt-content.xml', content);
  await m.put('/tmp/odt-manifest.xml', manifest);
  await m.sh(`python3 -c "
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], 'w')
z.writestr(zipfile.ZipInfo('mimetype'), 'application/vnd.oasis.opendocument.text')
z.write('/tmp/odt-content.xml', 'content.xml', zipfile.ZIP_DEFLATED)
z.write('/tmp/odt-manifest.xml', 'META-INF/manifest.xml', zipfile.ZIP_DEFLATED)
z.close()" ${JSON.stringify(path)} && rm /tmp/odt-content.xml /tmp/odt-manifest.xml`);
}
