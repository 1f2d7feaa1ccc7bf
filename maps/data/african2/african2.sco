sco (eth Aab Dji Som)
    (ivc Abi Fre Oua)
    (lib Ben Tri Tun)
    (sar Dam Mec Riy)
    (saf Cap Pel Pre)
    (zai Kin Kis Lub)
    (UNO Ang Cha Egy Gab Gre Irn Kha Mad Mor Nam Nga Sen Spa Tan Tim
          Uga Zam Zim)
