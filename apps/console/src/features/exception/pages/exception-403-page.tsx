import ExceptionView from '../components/exception-view';

export default function Exception403Page() {
  return <ExceptionView status="403" />;
}
