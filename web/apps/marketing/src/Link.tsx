import type { AnchorHTMLAttributes, MouseEvent } from 'react';

/** A link that uses the shell's client-side navigation when there is one. */
export function Link({ navigate, href, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; navigate?: (to: string) => void }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (!navigate || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={onClick} {...rest} />;
}
