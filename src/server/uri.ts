/** The file name part of a document URI, which is all format detection needs. */
export function fileNameOfUri(uri: string): string {
  const path = uri.split(/[?#]/)[0] ?? uri;
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
