// A link's `hub=` address, handled openly: the page asks before it downloads anything from a server other than
// huggingface.co, and names that server while it is in use.
import type { Notice } from '../common/failure-notice.ts';

/** The host of a Hub base URL ("mirror.example.org:8080"), or the text itself when it is not a URL. */
export function hubHost(hubUrl: string): string {
  try {
    return new URL(hubUrl).host || hubUrl;
  } catch {
    return hubUrl;
  }
}

/** The question a link with `hub=` raises, before any download from that server. */
export function hubConsentNotice(hubUrl: string): Notice {
  const host = hubHost(hubUrl);
  return {
    tone: 'warning',
    heading: 'This link downloads models from another server',
    message:
      `The link asks the page to fetch Hub models from ${host} (${hubUrl}) instead of huggingface.co. ` +
      "Use it only if you trust whoever sent the link; the paper's Table 1 is not shown for models from there.",
    actions: [
      { id: 'hub-accept', label: `Use ${host}` },
      { id: 'hub-default', label: 'Use huggingface.co' },
    ],
  };
}
