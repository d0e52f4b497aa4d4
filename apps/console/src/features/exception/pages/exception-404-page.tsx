// Placeholder so the router builds; replaced by the full page.
export default function Exception404Page() {
  return <div />;
}
