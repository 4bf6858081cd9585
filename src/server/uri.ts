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

/**
 * Whether a path stored with a run names the document at `uri`: stored paths are relative to a
 * workspace folder (the extension) or as typed on the command line (the CLI), so both are tried.
 */
export function storedPathMatcher(uri: string, workspaceFolders: readonly string[]): (stored: string) => boolean {
  const path = filePathOfUri(uri);
  return (stored) => {
    if (!path) return false;
    const normal = stored.replace(/\\/g, '/').replace(/^\.\//, '');
    if (normal === path) return true;
    if (workspaceFolders.some((folder) => `${folder.replace(/\/+$/, '')}/${normal}` === path)) return true;
    return path.endsWith(`/${normal}`);
  };
}

/** The local path of a file: URI (undefined for untitled and remote documents). */
export function filePathOfUri(uri: string): string | undefined {
  if (!uri.startsWith('file://')) return undefined;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return undefined;
  }
}
