import ExceptionView from '../components/exception-view';

export default function Exception404Page() {
  return <ExceptionView status="404" retry />;
}
