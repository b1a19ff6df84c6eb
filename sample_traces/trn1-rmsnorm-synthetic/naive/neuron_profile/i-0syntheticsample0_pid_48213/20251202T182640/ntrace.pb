ntrace SYNTHETIC placeholder written by scripts/make_trn1_samples.py (naive); not a real Neuron file
