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

/** Asks, in a modal dialog, before request parameters that change cost or retention are sent (costParamConsent.ts). */
export async function confirmCostParams(promptName: string, file: string, endpointName: string, description: string): Promise<boolean> {
  const send = 'Send with these parameters';
  const choice = await vscode.window.showWarningMessage(
    `The prompt '${promptName}' in ${file} sets request parameters that change what ${endpointName} charges or keeps: ${description}. A file from a cloned repository can set them. Send them?`,
    { modal: true, detail: 'Your answer is remembered for this file and these values; a change asks again.' },
    send,
  );
  return choice === send;
}

/** Asks, in a modal dialog, before a prompt's retrieval step sends its query to the URL its file names (retrievalConsent.ts). */
export async function confirmRetrievalUrl(promptName: string, file: string, destination: string): Promise<boolean> {
  const send = 'Send the retrieval query';
  const choice = await vscode.window.showWarningMessage(
    `The prompt '${promptName}' in ${file} has a retrieval step: before each run it sends the rendered query to ${destination} and puts the passages it answers into the prompt. A file from a cloned repository can name any URL. Send the query there?`,
    { modal: true, detail: 'Your answer is remembered for this file and this URL; another URL asks again.' },
    send,
  );
  return choice === send;
}
