/**
 * The content column of a page: stacks its cards with the 16 px gap of the reference layout. The layout already
 * draws the breadcrumb and the grey background; pages only add their cards.
 */
import type { CSSProperties, ReactNode } from 'react';

export function PageContainer({
  children,
  className,
  style,
}: {
  children?: ReactNode;
  className?: string;
  style?: CSSProperties;
}) {
  return (
    <div className={['page-container', className].filter(Boolean).join(' ')} style={style}>
      {children}
    </div>
  );
}
