import { useParams } from 'react-router';
import VersionForm from '../components/version-form';

export default function FirmwareVersionCreatePage() {
  const id = Number(useParams().id);
  return <VersionForm key={id} firmwareId={id} />;
}
