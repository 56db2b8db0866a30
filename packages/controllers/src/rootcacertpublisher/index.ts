export {
  createRootCACertPublisher,
  DESCRIPTION_ANNOTATION,
  ROOT_CA_CONFIGMAP_NAME,
  ROOT_CA_DESCRIPTION,
  ROOT_CA_QUEUE_NAME,
  type RootCACertPublisherOptions,
} from './controller.js';
