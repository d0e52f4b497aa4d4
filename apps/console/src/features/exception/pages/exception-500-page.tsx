// Placeholder so the router builds; replaced by the full page.
export default function Exception500Page() {
  return <div />;
}
