import { useParams } from 'react-router';
import VersionForm from '../components/version-form';

export default function FirmwareVersionEditPage() {
  const params = useParams();
  const id = Number(params.id);
  const versionId = Number(params.versionId);
  return <VersionForm key={`${id}/${versionId}`} firmwareId={id} versionId={versionId} />;
}
