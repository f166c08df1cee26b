/** Markdown rendered to HTML by marked and sanitised by DOMPurify before it touches the page: a skill body is data, never code. */
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true })), [text]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitised by DOMPurify just above
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
