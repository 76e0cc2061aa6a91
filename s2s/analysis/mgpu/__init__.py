"""Multi-GPU partitioning (``s2s mgpu``): which launches split over the devices (``plan``),
``__device__`` variables they write (``globals``), template instantiations' access maps
(``templates``) and where the launch tokens are (``sites``)."""
