import sys, numpy as np
s = np.load(sys.argv[1] + '/st.npy')
for w, base in ((0, 0), (3, 128)):
    print('warp', w, ' step: wait, sync1, mma_issue, mma_done')
    for k in range(16): print('  ', k, s[base + 4*k: base + 4*k + 4].tolist())
