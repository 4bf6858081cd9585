import * as vscode from 'vscode';

/** Asks, in a modal dialog, before a stored key goes to an origin it was not entered for. */
export async function confirmOriginChange(endpointName: string, storedOrigin: string, newOrigin: string): Promise<boolean> {
  const send = 'Send the key to the new origin';
  const choice = await vscode.window.showWarningMessage(
    `The API key of '${endpointName}' was saved for ${storedOrigin}, but the endpoint now points to ${newOrigin}. A workspace setting may have changed it. Send the key to ${newOrigin}?`,
    { modal: true },
    send,
  );
  return choice === send;
}
