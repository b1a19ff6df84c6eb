ntrace SYNTHETIC placeholder written by scripts/make_trn1_samples.py (compiled); not a real Neuron file
