import ExceptionView from '../components/exception-view';

export default function Exception500Page() {
  return <ExceptionView status="500" />;
}
