import { useParams } from 'react-router';
import FirmwareForm from '../components/firmware-form';

export default function FirmwareEditPage() {
  const id = Number(useParams().id);
  // A new id remounts the form, so its fields never mix two firmwares.
  return <FirmwareForm key={id} id={id} />;
}
