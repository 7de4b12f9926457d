/**
 * A connection URL fit to print: its password replaced by `***` (the user, host, port, database and
 * parameters kept, so the line still says where). Anything that is not a URL is printed as `<unparsable
 * URL>`: a malformed one could hold the password anywhere.
 */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url.toString());
  } catch {
    return '<unparsable URL>';
  }
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
